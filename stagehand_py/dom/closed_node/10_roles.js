// include: shared/closed_controls.js
