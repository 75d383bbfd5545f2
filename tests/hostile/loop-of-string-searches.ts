// expect: timeout
// timeout-ms: 1000
// Each turn is long native work with a poll between turns: QuickJS
// would ask its interrupt handler only after 10,000 of them.
const h = 'a'.repeat(8000);
const p = 'a'.repeat(7999) + 'b';
for (;;) h.indexOf(p)
