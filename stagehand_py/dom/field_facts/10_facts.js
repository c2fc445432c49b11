// include: shared/field_facts.js
