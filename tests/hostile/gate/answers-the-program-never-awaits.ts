// expect: memory
// output: memory limit of 64 MiB
// output: results waiting or in flight count toward it
// Sixty 8 MB answers that settle while the program computes without
// awaiting them: each counts toward the run's memory from settling until
// the program takes it, so the run ends as `memory` instead of the host
// holding 480 MB of answers for a program that never looks.
const calls = Array.from({ length: 60 }, () => tools.big({}));
const until = Date.now() + 5000;
let spins = 0;
while (Date.now() < until) spins++;
const settled = await Promise.allSettled(calls);
return [settled.length, spins];
