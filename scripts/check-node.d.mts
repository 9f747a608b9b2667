export function floorOf(range: string): [number, number, number];
export function nodeProblem(version: string, range: string): string | undefined;
