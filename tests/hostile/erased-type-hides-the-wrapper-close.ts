// expect: syntax
// output: has no matching `{`
// `as void` is erased, so `/0}); … 0/` is two divisions around code that
// closes the wrapper function, not a regular expression.
0 as void /0}); var leaked = 1; (async function () {0/ 1
return leaked
