import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ApiError, unavailable, type ApiErrorType } from '../core/domain/errors.ts';
import { httpAnswerOf, statusByCode } from '../core/http/error-status.ts';
import { buildOpenApiDocument } from '../core/http/openapi/document.ts';

/**
 * Errors say what went wrong; the HTTP layer's table says with which status. These checks keep
 * the table whole: a code thrown anywhere without a status, or with one its type cannot have, fails.
 */
const root = path.resolve(import.meta.dirname, '..');

const statusesOfType: Record<ApiErrorType, number[]> = {
  invalid_request_error: [400, 405, 408, 413, 415, 431],
  authentication_error: [401],
  authorization_error: [403],
  not_found_error: [404, 410],
  conflict_error: [409],
  rate_limit_error: [429],
  api_error: [500, 503],
};

function sources(): string[] {
  return ['core', 'plugins', 'demo', 'dashboard', 'sdk', 'kit', 'cli'].flatMap((dir) =>
    readdirSync(path.join(root, dir), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name))
      .map((entry) => readFileSync(path.join(entry.parentPath, entry.name), 'utf8')),
  );
}

/** Each `type` and `code` the sources construct an ApiError with, where both are written out. */
function thrown(): Array<{ type: ApiErrorType; code: string }> {
  return sources().flatMap((text) =>
    [...text.matchAll(/new ApiError\(\s*'(\w+)',\s*'(\w+)'/g)].map((match) => ({
      type: match[1] as ApiErrorType,
      code: match[2]!,
    })),
  );
}

describe('error statuses', () => {
  it('every code thrown in the sources has a status its type allows', () => {
    const found = thrown();
    assert.ok(found.length > 40, `the scan sees the sources (${found.length} errors)`);
    for (const { type, code } of found) {
      const status = (statusByCode as Record<string, number | undefined>)[code];
      assert.ok(status !== undefined, `'${code}' has no HTTP status in core/http/error-status.ts`);
      assert.ok(statusesOfType[type].includes(status), `'${code}' (${type}) is answered ${status}`);
    }
  });

  it('every status and code the OpenAPI document promises is the one the table gives', () => {
    const document = buildOpenApiDocument() as {
      paths: Record<string, Record<string, { responses?: Record<string, unknown> }>>;
    };
    let checked = 0;
    for (const operations of Object.values(document.paths)) {
      for (const operation of Object.values(operations)) {
        for (const [status, response] of Object.entries(operation.responses ?? {})) {
          const codes = JSON.stringify(response).match(/"code":\{"enum":(\[[^\]]*\])/)?.[1];
          for (const code of codes ? (JSON.parse(codes) as string[]) : []) {
            assert.equal((statusByCode as Record<string, number>)[code], Number(status), `${code}`);
            checked++;
          }
        }
      }
    }
    assert.ok(checked > 100, `the walk sees the documented errors (${checked})`);
  });

  it('a wait becomes Retry-After, and a key refused asks for the key', () => {
    const limited = new ApiError('rate_limit_error', 'rate_limited', 'Too many requests.', null, {
      retryAfterSeconds: 7,
    });
    assert.deepEqual(httpAnswerOf(limited), { status: 429, headers: { 'retry-after': '7' } });
    assert.deepEqual(httpAnswerOf(unavailable('database_unavailable', 'Down.')), {
      status: 503,
      headers: { 'retry-after': '1' },
    });
    assert.deepEqual(
      httpAnswerOf(new ApiError('api_error', 'database_unavailable', 'The database is not reachable.')),
      { status: 503, headers: {} },
    );
    assert.deepEqual(httpAnswerOf(new ApiError('authentication_error', 'invalid_api_key', 'Invalid API key.')), {
      status: 401,
      headers: { 'www-authenticate': 'Bearer realm="visualizer"' },
    });
    assert.deepEqual(httpAnswerOf(new ApiError('authentication_error', 'not_signed_in', 'Sign in.')), {
      status: 401,
      headers: {},
    });
    assert.deepEqual(httpAnswerOf(new ApiError('invalid_request_error', 'body_too_large', 'Too large.')), {
      status: 413,
      headers: { connection: 'close' },
    });
  });
});
