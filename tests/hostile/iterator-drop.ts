// expect: timeout
// timeout-ms: 300
const it = Array.prototype.keys.call({ length: 2 ** 53 - 1 });
return (it as any).drop(2 ** 52).next()
