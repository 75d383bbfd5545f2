(async function () {const rows = await tools.get_rows({})
const groups = {}
for (const r of rows) {
  const tag = r.tags[0]
  const g = groups[tag] || (groups[tag] = { tag, n: 0, sum: 0 })
  g.n++
  g.sum += r.score
}
return Object.values(groups)
  .map(g => ({ tag: g.tag, n: g.n, avg: g.sum / g.n }))
  .sort((a, b) => b.avg - a.avg || (a.tag < b.tag ? -1 : 1))
  .slice(0, 10)
})