const t0 = performance.now();
await import(process.argv[2]);
console.log(Math.round(performance.now() - t0));
