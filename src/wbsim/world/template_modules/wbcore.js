// wbsim's wbcore template module (written from Webots' documentation).
// A module file is one function expression: it receives `load(name)` for the modules it uses and
// returns its exported functions. wbsim instantiates modules afresh for every PROTO expansion.
(function (load) {
  // An independent copy of plain data (numbers, strings, arrays, objects), as JSON round-trips it.
  function deepCopy(original) {
    return JSON.parse(JSON.stringify(original));
  }
  return { deepCopy };
})
