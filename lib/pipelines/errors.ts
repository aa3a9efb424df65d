import { StoreCtlError } from "../errors/mod.ts";

/** One invalid field of a pipeline request. */
export interface PipelineFieldError {
  readonly field: string;
  readonly message: string;
}

/** A pipeline request the service refuses (a 422 listing each field). */
export class PipelineInputError extends StoreCtlError {
  readonly errors: readonly PipelineFieldError[];
  constructor(message: string, errors: readonly PipelineFieldError[]) {
    super("validation", message, { details: { errors } });
    this.name = "PipelineInputError";
    this.errors = errors;
  }
}
