export const shortId = (id) => id.slice(0, 8);
