/** One page of a list read by offset. */
export interface Page {
  offset: number;
  limit: number;
}
