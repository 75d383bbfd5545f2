(async function () {async function* numbers()                         { yield 1; yield 2 }
let total = 0
outer: for await (const n of numbers()) {
  switch (n) {
    case 1: { total += n; break }
    default: break outer
  }
}
try { JSON.parse('{') } catch (e         ) { total += 10 } finally { total *= 2 }
return total
})