// include: shared/clickable.js
