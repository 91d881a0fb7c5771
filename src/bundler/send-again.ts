/** Thrown inside a send to check it again from the start (what it is queued behind changed). */
export class SendAgain extends Error {}
