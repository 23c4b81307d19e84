// Judgments a user opens (qrels) and nDCG@10 over them, as `make eval` computes it
// (retrieval_dev/evaluation/metrics.py: linear gains, 1/log2(rank + 1) discount).

/** Parses TREC qrels lines ("query 0 item grade", or "query item grade") or JSON Lines whose objects
 * have `judgments` ({item: grade}) and `text` (and an `id`; one whose `context_id` is not ``context``
 * is left out). Returns Map: query key -> {label, text, grades}. */
export function parseQrels(content, context) {
  const queries = new Map();
  for (const [number, raw] of content.split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (!line || line.startsWith("#")) continue;
    if (line.startsWith("{")) {
      const entry = JSON.parse(line);
      if (!entry.judgments) throw new Error(`line ${number + 1}: no "judgments"`);
      if (context && entry.context_id && entry.context_id !== context) continue;
      const key = String(entry.id ?? entry.text);
      queries.set(key, { label: entry.text ? `${key}: ${entry.text}` : key, text: entry.text || "",
        grades: new Map(Object.entries(entry.judgments).map(([id, grade]) => [id, Number(grade)])) });
      continue;
    }
    const fields = line.split(/\s+/);
    if (fields.length !== 3 && fields.length !== 4) throw new Error(`line ${number + 1}: expected "query [0] item grade"`);
    const [query, item, grade] = fields.length === 4 ? [fields[0], fields[2], fields[3]] : fields;
    if (!queries.has(query)) queries.set(query, { label: query, text: "", grades: new Map() });
    queries.get(query).grades.set(item, Number(grade));
  }
  return queries;
}

function dcg(grades) {
  return grades.reduce((sum, grade, index) => sum + grade / Math.log2(index + 2), 0);
}

/** nDCG@k of a ranking (ids, best first); null when nothing is judged relevant. */
export function ndcg(ranking, grades, k = 10) {
  const ideal = dcg([...grades.values()].filter((g) => g > 0).sort((a, b) => b - a).slice(0, k));
  if (ideal === 0) return null;
  return dcg([...new Set(ranking)].slice(0, k).map((id) => Math.max(0, grades.get(id) || 0))) / ideal;
}
