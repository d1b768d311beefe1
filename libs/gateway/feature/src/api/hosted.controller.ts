// The hosted pages live in ../hosted; formatAmount is kept here for the pages that import it from this path.
export { formatAmount } from '../hosted/html';
