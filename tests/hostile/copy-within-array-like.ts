// expect: timeout
// timeout-ms: 300
return Array.prototype.copyWithin.call({ length: 2 ** 53 - 1 }, 0, 1)
