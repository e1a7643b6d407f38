import { BlockedDestination, guardedAddresses, type Resolver } from '../lib/net-guard.js';

/**
 * The vendor upstream for `claude-*` models (DECISIONS coder-1): `POST {base}/v1/messages` with the
 * caller's token as the vendor key. Every way it can fail is one UpstreamFailure, which the handler
 * answers as 502 (no upstream, refused, unreachable, a server error) or 504 (too slow).
 */
export class UpstreamFailure extends Error {
  constructor(
    readonly status: 502 | 504,
    message: string,
  ) {
    super(message);
  }
}

export interface UpstreamOptions {
  /** base URL; unset: every call fails with 502 naming the setting */
  baseUrl: string | undefined;
  timeoutMs: number;
  resolver: Resolver;
  /** lets 127.0.0.0/8 and ::1 through the SSRF guard (`STUB_ALLOW_LOOPBACK=1`) */
  allowLoopback: boolean;
}

export interface UpstreamCall {
  token: string;
  /** the exact request bytes the client sent */
  body: Buffer;
  anthropicVersion: string | undefined;
  anthropicBeta: string | undefined;
}

/** Statuses of the upstream passed to the client as they are: the rest are the upstream's failure, answered 502. */
const passedStatuses = new Set([400, 401, 404]);

export function vendorUpstream(options: UpstreamOptions) {
  return {
    configured: options.baseUrl !== undefined,

    async send(call: UpstreamCall): Promise<Response> {
      if (!options.baseUrl) throw new UpstreamFailure(502, 'No upstream is configured for claude-* models: set CODER_UPSTREAM_URL');
      const url = new URL(`${options.baseUrl.replace(/\/+$/, '')}/v1/messages`);
      await guard(url, options);
      const controller = new AbortController();
      // Only the wait for the answer's head is bounded: a stream that has started may take its time.
      const timer = setTimeout(() => controller.abort(), options.timeoutMs);
      let response: Response;
      try {
        response = await fetch(url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'x-api-key': call.token,
            'anthropic-version': call.anthropicVersion ?? '2023-06-01',
            ...(call.anthropicBeta && { 'anthropic-beta': call.anthropicBeta }),
          },
          body: new Uint8Array(call.body),
          redirect: 'manual',
          signal: controller.signal,
        });
      } catch (error) {
        if (controller.signal.aborted) throw new UpstreamFailure(504, `The upstream did not answer within ${options.timeoutMs} ms`);
        throw new UpstreamFailure(502, `The upstream ${url.origin} is unreachable (${(error as Error).cause ? String(((error as Error).cause as Error).message ?? '') : (error as Error).message})`);
      } finally {
        clearTimeout(timer);
      }
      if ((response.status >= 200 && response.status < 300) || passedStatuses.has(response.status)) return response;
      await response.body?.cancel();
      throw new UpstreamFailure(502, `The upstream answered ${response.status}`);
    },
  };
}

export type VendorUpstream = ReturnType<typeof vendorUpstream>;

/** The SSRF guard: an http(s) URL whose every address is public (loopback only where allowed). */
async function guard(url: URL, options: UpstreamOptions): Promise<void> {
  try {
    await guardedAddresses(url, options.resolver, { allowLoopback: options.allowLoopback });
  } catch (error) {
    if (error instanceof BlockedDestination) throw new UpstreamFailure(502, `The upstream is refused: ${error.message}`);
    throw error;
  }
}
