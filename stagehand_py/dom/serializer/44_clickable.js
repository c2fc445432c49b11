// include: shared/clickable.js
// (Serializer part 4b: what pages make clickable without markup, and icon hints; shared with
// the aria view, see that file.)
