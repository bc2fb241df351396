/**
 * The agent side of a run, created on the first agent step so a plan without agents never
 * loads the session layer or a transport. Sub-flows share their parent's.
 */
export class AgentServices {
    #home;
    #set;
    #overrides;
    #ready;
    constructor(home, set, overrides = {}) {
        this.#home = home;
        this.#set = set;
        this.#overrides = overrides;
    }
    get() {
        this.#ready ??= this.#create();
        return this.#ready;
    }
    /** Stops every live session this run opened. */
    async close() {
        if (this.#ready === undefined)
            return;
        const ready = await this.#ready.catch(() => undefined);
        await ready?.close();
    }
    async #create() {
        const driver = this.#overrides.driver ?? new (await import('../agent/rules-driver.js')).RulesDriver();
        if (this.#overrides.sessions !== undefined)
            return { driver, sessions: this.#overrides.sessions, close: async () => { } };
        const { createSessionService } = await import('../../session/index.js');
        const service = createSessionService({ home: this.#home, definitions: this.#set() });
        return { driver, sessions: service, close: () => service.close() };
    }
}
