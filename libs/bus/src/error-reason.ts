/** An error's message for a log line: an Error's message, a string as is, anything else as JSON. */
export const reason = (error: unknown): string => (error instanceof Error ? error.message : typeof error === 'string' ? error : JSON.stringify(error));
