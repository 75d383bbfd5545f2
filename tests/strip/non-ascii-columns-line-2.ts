// 注释 😀 comment
const t: '日本' = '日本' /* ✓ */; let = ;