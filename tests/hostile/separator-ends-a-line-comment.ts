// expect: syntax
// output: ends at a line or paragraph separator
// QuickJS ends a line comment at U+2028 without a line break, swc with one:
// the scan would read a regular expression where QuickJS divides.
let a = 1
return a //c ++ /0}); var leaked = 1; (async function () {0/ 1
