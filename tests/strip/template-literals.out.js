(async function () {const lines           = []
for (let i = 0; i < 3; i++) {
  lines.push(`${i}: ${(i / 2).toFixed(1)} ${i < 2 ? 'low' : 'high'}`)
}
return lines.join('\n')
})