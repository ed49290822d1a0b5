// @ts-check
/** @param {string} name */
function greet(name) {
  return "hello, " + name;
}

let count = 1;
count = greet("world");
