/** Any identifier or short text an integrator sends: references, names, connection ids. */
export const STRING_LENGTH_MAX = 255;
/** A webhook endpoint's URL. */
export const URL_LENGTH_MAX = 2048;
/** A supplier payment's description. */
export const DESCRIPTION_LENGTH_MAX = 1000;
