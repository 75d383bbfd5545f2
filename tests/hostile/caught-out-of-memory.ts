// expect: memory
// timeout-ms: 20000
try {
  const a: any[] = [];
  for (;;) a.push(new Array(1e5).fill(1));
} catch {}
return 'survived'
