// expect: timeout
// timeout-ms: 300
return Array.prototype.reverse.call({ length: 2 ** 53 - 1 })
