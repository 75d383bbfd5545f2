// expect: timeout
// timeout-ms: 300
return Array.prototype.unshift.call({ length: 2 ** 52 }, 1)
