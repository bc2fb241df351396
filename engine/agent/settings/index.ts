/**
 * The part of the agent's settings a flow run needs before any agent runs: reading the `.env`
 * files at the run's start. A face of its own so `neo flow run` does not load the agent (its
 * providers, tools and their dependencies) for a plan that may run none.
 */
export { projectDotenvPin, readDotenvLayers, type DotenvLayers, type ReadDotenvOptions } from './dotenv-layers.js';
