// include: shared/fingerprint.js
