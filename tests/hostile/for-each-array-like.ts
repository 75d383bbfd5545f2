// expect: timeout
// timeout-ms: 300
Array.prototype.forEach.call({ length: 2 ** 53 - 1 }, Boolean);
return 1
