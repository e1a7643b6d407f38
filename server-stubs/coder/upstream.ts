import { BlockedDestination, guardedAddresses, type Resolver } from '../lib/net-guard.js';

/**
 * The vendor upstream for `claude-*` models (DECISIONS coder-1): `POST {base}/v1/messages` with the
 * caller's token as the vendor key. Whatever HTTP answer the upstream gives, of any status, is the
 * client's (DECISIONS coder-9: its 429 with `retry-after`, its 529, its 5xx reach the official SDK
 * as they are). Only not getting an HTTP answer is an UpstreamFailure, which the handler answers as
 * 502 (no upstream, refused by the SSRF guard, unreachable, not HTTP) or 504 (too slow).
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
        const cause = (error as Error).cause as (Error & { code?: string }) | undefined;
        // undici's HTTP parser codes (HPE_…): something answered, but not in HTTP.
        if (cause?.code?.startsWith('HPE_')) throw new UpstreamFailure(502, `The upstream ${url.origin} did not answer in HTTP (${cause.message})`);
        throw new UpstreamFailure(502, `The upstream ${url.origin} is unreachable (${cause ? String(cause.message ?? '') : (error as Error).message})`);
      } finally {
        clearTimeout(timer);
      }
      return response;
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
