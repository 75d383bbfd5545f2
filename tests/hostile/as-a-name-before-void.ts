// expect: syntax
// output: cannot tell whether this `/`
// `as` is a plain name here: its statement ends at the line break, so
// `void /'/` is a regular expression, not the end of an erased type.
var as; {} as
void /'/; }); var leaked = typeof Date; (async function () { //'
return leaked
