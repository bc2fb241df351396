/** The cost profile a backend's advice is read for. */
export function adviceProfile(backend) {
    return backend.costProfile === 'metered' ? 'metered' : 'subscription';
}
export function routingAdvice(routings, backend, taskTags) {
    for (const tag of taskTags) {
        for (const routing of routings) {
            const taskClass = routing.data.taskClasses[tag];
            if (taskClass === undefined)
                continue;
            const advice = taskClass[adviceProfile(backend)];
            const out = { source: `routing ${routing.id}`, taskClass: tag };
            if (backend.modelSelection !== 'none')
                out.modelClass = advice.modelClass;
            if (backend.effortSupport?.levels.includes(advice.effort))
                out.effort = advice.effort;
            if (advice.note !== undefined)
                out.note = advice.note;
            return out;
        }
    }
    return undefined;
}
