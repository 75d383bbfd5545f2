(async function () {function pick                                     (obj   , keys     )             {
  const out = {}              
  for (const k of keys) out[k] = obj[k]
  return out
}
;                                               
const row      = { a: 1, b: 'x' }
return pick(row, ['a', 'b'])
})