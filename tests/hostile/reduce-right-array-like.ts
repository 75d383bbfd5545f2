// expect: timeout
// timeout-ms: 300
return Array.prototype.reduceRight.call({ length: 2 ** 53 - 1, 0: 1 }, (x: number, y: number) => x + y)
