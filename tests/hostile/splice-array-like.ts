// expect: timeout
// timeout-ms: 300
return Array.prototype.splice.call({ length: 2 ** 53 - 1 }, 0, 1).length
