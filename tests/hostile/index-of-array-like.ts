// expect: timeout
// timeout-ms: 300
return Array.prototype.indexOf.call({ length: 2 ** 53 - 1 }, 1)
