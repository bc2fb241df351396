/** Turns a title into a URL slug: lower case, words joined by single dashes. */
export function slug(title) {
  return title.trim().split(/\s+/).join('-');
}
