// expect: timeout
// timeout-ms: 1000
// Each turn is long native work with a poll between turns: QuickJS
// would ask its interrupt handler only after 10,000 of them.
const t = new Int32Array(4e6); for (let i = 0; i < t.length; i++) t[i] = (i * 2654435761) | 0;
for (;;) t.sort()
