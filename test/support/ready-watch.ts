// One watch on a Deployment that records every readyReplicas it reports, with the time it arrived: a
// dip that lasts one watch event counts, which sampling at the end of a test would miss. The API server
// ends a watch that stays quiet (client-node's request times out after ~35 s without events, the
// length of an HPA's settle window); it is resumed from the last resourceVersion seen, and `ends`
// says when, so no stretch of the run goes unwatched.
import { Watch, type KubeConfig, type V1Deployment } from '@kubernetes/client-node';

export interface ReadySample {
  at: number;
  replicas?: number;
  ready: number;
}

export interface ReadyWatch {
  samples: ReadySample[];
  /** When and why the watch ended and was resumed. */
  ends: string[];
  stop: () => void;
}

export async function watchReady(kc: KubeConfig, ns: string, name: string): Promise<ReadyWatch> {
  const samples: ReadySample[] = [];
  const ends: string[] = [];
  let stopped = false;
  let resourceVersion: string | undefined;
  let req: AbortController | undefined;
  const open = async (): Promise<void> => {
    req = await new Watch(kc).watch(
      `/apis/apps/v1/namespaces/${ns}/deployments`,
      { fieldSelector: `metadata.name=${name}`, ...(resourceVersion ? { resourceVersion } : {}) },
      (_type: string, d: V1Deployment) => {
        resourceVersion = d.metadata?.resourceVersion;
        samples.push({ at: Date.now(), replicas: d.spec?.replicas, ready: d.status?.readyReplicas ?? 0 });
      },
      (err: unknown) => {
        if (stopped) return;
        ends.push(
          `${new Date().toISOString()} ${err instanceof Error ? err.message : (JSON.stringify(err) ?? 'closed by the server')}`,
        );
        void open();
      },
    );
  };
  await open();
  return {
    samples,
    ends,
    stop: () => {
      stopped = true;
      req?.abort();
    },
  };
}
