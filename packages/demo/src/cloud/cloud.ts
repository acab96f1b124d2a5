// A Cloud is where the demo's servers live and where noderepair's reboots go: the FAKE Nova
// (fake-cloud.ts) or the REAL OpenStack test bed (real-cloud.ts). noderepair reaches it through
// the clouds.yaml it is given; the machines (world/machines.ts) read a server's reboots from
// it, the node group stand-in its deleted servers, the observer the reboots Nova accepted.

/** What a machine needs to know of its server, from Nova. */
export interface ServerView {
  /** Nova is rebooting it (the VM, and so its kubelet, is down). */
  readonly rebooting: boolean;
  /** Reboots Nova completed so far. */
  readonly boots: number;
  /** Nova's status, for the timeline's notes. */
  readonly status: string;
}

/** A reboot request Nova answered 202 (what the controller's client sent and Nova accepted). */
export interface AcceptedReboot {
  /** Unix milliseconds of Nova's answer. */
  readonly at: number;
  readonly serverId: string;
  /**
   * What the request asked for, when the cloud's record says (the fake's request log); Nova's
   * os-instance-actions does not: then the observer takes it from noderepair's Event that
   * names the same request id.
   */
  readonly type: 'SOFT' | 'HARD' | undefined;
  /** Nova's x-compute-request-id, when the cloud records it. */
  readonly requestId?: string | undefined;
}

export interface Cloud {
  readonly kind: 'fake' | 'real';
  /** One line for the progress output: what it is and where. */
  readonly description: string;
  /** A clouds.yaml with the cloud `cloudName`: what `noderepair run --cloud` reads. */
  readonly cloudsYaml: string;
  readonly cloudName: string;
  /** How long a rebooted VM takes to boot its kubelet once Nova says the reboot is done. */
  readonly bootMs: number;
  /** Creates a server and resolves with its id once Nova shows it ACTIVE. */
  createServer(name: string): Promise<string>;
  deleteServer(serverId: string): Promise<void>;
  owns(serverId: string): boolean;
  /** True once Nova no longer has a server this cloud created (it answers 404). */
  gone(serverId: string): Promise<boolean>;
  /** The server as last seen (cheap: the machines ask four times a second). */
  observe(serverId: string): ServerView | undefined;
  /** Every reboot Nova accepted so far, oldest first (the list only grows). */
  acceptedReboots(): readonly AcceptedReboot[];
  /** One line for the summary: which nodes it served and what its Nova did. */
  describeUse(): string;
  /** Stops watching and deletes the servers this cloud created. */
  close(): Promise<void>;
}
