/** A model refused by checkModel: `reason` is for logs and tests, the message is for users. */
export class ModelRejectedError extends Error {
  constructor(readonly reason: string) {
    // Says nothing about what was checked: the reason stays in logs, not in a hostile user's hands.
    super(
      "the trained model is not one this service's exporter makes, so it was refused; train again, and if it happens again with unchanged code, report it",
    );
    this.name = 'ModelRejectedError';
  }
}

export function refuse(reason: string): never {
  throw new ModelRejectedError(reason);
}
