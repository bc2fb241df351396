/** Where definitions come from, lowest precedence first; `path` is a file named on the command line. */
export const LAYERS = ['packaged', 'user', 'project', 'path'];
