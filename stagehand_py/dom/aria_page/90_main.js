// Part 9: run the task asked for and return its result as one JSON string.
return JSON.stringify(opts.task === "lists" ? lists() : facts());
