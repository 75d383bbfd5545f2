//! How long stripping and wrapping a program takes (`prepare` on the hot path
//! of every run).
//!
//! Run with `cargo bench --bench strip`.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use ptc::__private::prepare_script;

const LIMIT: usize = 1 << 20;

/// A typical typed program of 30 lines.
const TYPED_30: &str = r#"interface Row { id: string; tags: string[]; score: number }
type Group = { tag: string; n: number; sum: number };

const rows: Row[] = await tools.get_rows({ limit: 500 });
const groups: Record<string, Group> = {};
for (const r of rows) {
  const tag = r.tags[0] ?? "untagged";
  const g: Group = groups[tag] ?? (groups[tag] = { tag, n: 0, sum: 0 });
  g.n++;
  g.sum += r.score;
}

function average(g: Group): number {
  return g.n === 0 ? 0 : g.sum / g.n;
}

const ranked = Object.values(groups)
  .map((g): { tag: string; avg: number } => ({ tag: g.tag, avg: average(g) }))
  .sort((a, b) => b.avg - a.avg || (a.tag < b.tag ? -1 : 1));

const top = ranked.slice(0, 10) as Array<{ tag: string; avg: number }>;
for (const entry of top) {
  console.log(`${entry.tag}: ${entry.avg.toFixed(2)}`);
}
const details = await Promise.all(
  top.map((entry) => tools.describe_tag({ tag: entry.tag })),
);
return { top, details: details satisfies unknown[] };
"#;

/// A 1,000-line program: 100 copies of a 10-line typed block.
fn program_1000_lines() -> String {
    (0..100)
        .map(|i| {
            format!(
                r#"interface Item{i} {{ id: number; name: string; price?: number }}
const items{i}: Item{i}[] = await tools.list_items({{ page: {i} }});
let total{i}: number = 0;
for (const item of items{i}) {{
  total{i} += (item.price ?? 0) * 2;
}}
const names{i} = items{i}.map((item: Item{i}): string => item.name.toUpperCase());
if (names{i}.length > 0 && total{i} / names{i}.length > 10) {{
  console.log("page {i}", names{i}.join(", "), total{i} as number);
}}
"#
            )
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let large = program_1000_lines();
    assert_eq!(large.lines().count(), 1000);
    let mut group = c.benchmark_group("prepare");
    for (name, code) in [
        ("return 1", "return 1"),
        ("typed 30 lines", TYPED_30),
        ("1000 lines", large.as_str()),
    ] {
        assert!(prepare_script(code, LIMIT).is_ok(), "{name} must prepare");
        group.bench_function(name, |b| {
            b.iter(|| prepare_script(black_box(code), LIMIT));
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
