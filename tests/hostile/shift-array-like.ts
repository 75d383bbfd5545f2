// expect: timeout
// timeout-ms: 300
return Array.prototype.shift.call({ length: 2 ** 53 - 1 })
