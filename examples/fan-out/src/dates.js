export const isoDay = (date) => date.toISOString().slice(0, 10);
