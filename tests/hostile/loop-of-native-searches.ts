// expect: timeout
// timeout-ms: 1000
// Each turn is long native work with a poll between turns: QuickJS
// would ask its interrupt handler only after 10,000 of them.
const a = new Array(2e6).fill(1);
for (;;) a.indexOf(2)
