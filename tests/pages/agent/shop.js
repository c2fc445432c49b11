// The tiny shop's data and cart, shared by its pages. The cart lives in localStorage, so it
// survives navigation inside one browser context and starts empty in a fresh one.
const PRODUCTS = {
  walnut: { name: "Walnut desk lamp", price: 34.0, kind: "lamp" },
  paper: { name: "Paper lantern lamp", price: 24.5, kind: "lamp" },
  brass: { name: "Brass reading lamp", price: 29.9, kind: "lamp" },
  oak: { name: "Oak floor lamp", price: 89.0, kind: "lamp" },
  wool: { name: "Wool throw", price: 45.0, kind: "textile" },
};

function euros(amount) {
  return amount.toFixed(2) + " EUR";
}

function readCart() {
  try {
    return JSON.parse(localStorage.getItem("cart") || "[]");
  } catch (e) {
    return [];
  }
}

function writeCart(items) {
  localStorage.setItem("cart", JSON.stringify(items));
}

function param(name) {
  return new URLSearchParams(location.search).get(name) || "";
}
