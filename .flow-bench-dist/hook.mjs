export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  process.stderr.write(`R ${r.url}\n`);
  return r;
}
