// What the bundle (scripts/build-cli.ts) gives the MCP server SDK for its
// `@modelcontextprotocol/server/_shims` import, in place of the SDK's node shims. Those load its
// copy of ajv (~290 KB, ~20 ms of a start's CPU) with the SDK, although mnemo's server validates
// a JSON schema only when a client answers an elicitation (ask-person). The validator here is
// the SDK's own, loaded on its first use instead: synchronously, from the SDK's CommonJS build.
import { createRequire } from 'node:module';
import process from 'node:process';
import type { JsonSchemaType, JsonSchemaValidator } from '@modelcontextprotocol/server';
import type { AjvJsonSchemaValidator } from '@modelcontextprotocol/server/validators/ajv';

const requireFromHere = createRequire(import.meta.url);

/** The SDK's AjvJsonSchemaValidator, required the first time a schema is to be validated. */
export class DefaultJsonSchemaValidator {
  readonly #given: ConstructorParameters<typeof AjvJsonSchemaValidator>;
  #ajv: AjvJsonSchemaValidator | undefined;

  constructor(...given: ConstructorParameters<typeof AjvJsonSchemaValidator>) {
    this.#given = given;
  }

  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    if (!this.#ajv) {
      const sdk = requireFromHere(
        '@modelcontextprotocol/server/validators/ajv',
      ) as typeof import('@modelcontextprotocol/server/validators/ajv');
      this.#ajv = new sdk.AjvJsonSchemaValidator(...this.#given);
    }
    return this.#ajv.getValidator<T>(schema);
  }
}

export { process };
