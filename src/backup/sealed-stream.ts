import { createCipheriv, createDecipheriv, createHmac, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import { BackupError } from './errors.ts';

/**
 * A backup file at rest: a header, then the plaintext in chunks, each sealed with AES-256-GCM.
 *
 * Header (56 bytes): `BYBK`, format 1, scrypt's log2(N), r and p, a random 16-byte salt, and an
 * HMAC-SHA256 of those 24 bytes. scrypt(passphrase, salt) gives 64 bytes: the chunks' key and the
 * HMAC's key, so a wrong passphrase is told apart from a damaged chunk before anything is read.
 *
 * Chunk: its ciphertext's length (uint32, at most 64 KiB), the ciphertext, the 16-byte tag. The
 * nonce is the chunk's number and a flag set only on the last chunk (the STREAM construction), and
 * the header is each chunk's associated data: a chunk moved, dropped, replayed from another file or
 * cut off fails, and a file that stops before its flagged last chunk is known to be truncated. A
 * reader passes on only chunks that authenticated. The key is new for every file (random salt), so
 * counters never repeat a nonce under one key.
 */
const magic = Buffer.from('BYBK', 'ascii');
const formatVersion = 1;
const saltBytes = 16;
const headerPrefixBytes = magic.length + 4 + saltBytes;
const headerBytes = headerPrefixBytes + 32;
const tagBytes = 16;
const lengthBytes = 4;
export const chunkBytes = 64 * 1024;

/** OWASP's scrypt figures (N = 2^17, r = 8, p = 1): 128 MiB and a fraction of a second, once per file. */
const defaultCost = { log2N: 17, r: 8, p: 1 } as const;
/** What a reader accepts from a header, so that a forged one cannot ask for gigabytes. */
const maxCost = { log2N: 20, r: 16, p: 4 } as const;

interface ScryptCost {
  log2N: number;
  r: number;
  p: number;
}

interface FileKeys {
  chunkKey: Buffer;
  macKey: Buffer;
}

function deriveKeys(passphrase: string, salt: Buffer, cost: ScryptCost): Promise<FileKeys> {
  const N = 2 ** cost.log2N;
  const maxmem = 256 * N * cost.r * cost.p;
  return new Promise((resolve, reject) => {
    scrypt(passphrase.normalize('NFC'), salt, 64, { N, r: cost.r, p: cost.p, maxmem }, (error, derived) => {
      if (error) reject(error);
      else resolve({ chunkKey: derived.subarray(0, 32), macKey: derived.subarray(32, 64) });
    });
  });
}

function headerCheck(macKey: Buffer, prefix: Buffer): Buffer {
  return createHmac('sha256', macKey).update(prefix).digest();
}

function nonceFor(counter: number, last: boolean): Buffer {
  const nonce = Buffer.alloc(12);
  nonce.writeUInt32BE(counter, 7);
  nonce[11] = last ? 1 : 0;
  return nonce;
}

/** A Transform that writes the header, then the input in sealed chunks. */
export async function createSealingStream(passphrase: string, cost: ScryptCost = defaultCost): Promise<Transform> {
  const salt = randomBytes(saltBytes);
  const { chunkKey, macKey } = await deriveKeys(passphrase, salt, cost);
  const prefix = Buffer.concat([magic, Buffer.from([formatVersion, cost.log2N, cost.r, cost.p]), salt]);
  const header = Buffer.concat([prefix, headerCheck(macKey, prefix)]);
  let counter = 0;
  let pending: Buffer[] = [];
  let pendingBytes = 0;

  const seal = (plain: Buffer, last: boolean): Buffer => {
    const cipher = createCipheriv('aes-256-gcm', chunkKey, nonceFor(counter, last));
    counter += 1;
    cipher.setAAD(header);
    const sealed = Buffer.concat([cipher.update(plain), cipher.final()]);
    const length = Buffer.alloc(lengthBytes);
    length.writeUInt32BE(sealed.length);
    return Buffer.concat([length, sealed, cipher.getAuthTag()]);
  };

  return new Transform({
    construct(callback) {
      this.push(header);
      callback();
    },
    transform(data: Buffer, _encoding, callback: TransformCallback) {
      pending.push(data);
      pendingBytes += data.length;
      // Strictly more than one chunk: what remains at the end is the last chunk (it may be empty).
      if (pendingBytes > chunkBytes) {
        let all = Buffer.concat(pending);
        while (all.length > chunkBytes) {
          this.push(seal(all.subarray(0, chunkBytes), false));
          all = all.subarray(chunkBytes);
        }
        pending = [all];
        pendingBytes = all.length;
      }
      callback();
    },
    flush(callback: TransformCallback) {
      this.push(seal(Buffer.concat(pending), true));
      callback();
    },
  });
}

/**
 * A Transform that reads a sealed file and passes on the plaintext of each chunk once it has
 * authenticated; it fails with a BackupError for a wrong passphrase, a damaged or truncated file.
 */
export function createOpeningStream(passphrase: string): Transform {
  let buffered: Buffer = Buffer.alloc(0);
  let header: Buffer | undefined;
  let chunkKey: Buffer | undefined;
  let counter = 0;
  let ended = false;

  const openChunks = (stream: Transform): void => {
    while (chunkKey && header) {
      if (ended) {
        if (buffered.length > 0) throw damaged('there are bytes after the last chunk');
        return;
      }
      if (buffered.length < lengthBytes) return;
      const length = buffered.readUInt32BE(0);
      if (length > chunkBytes) throw damaged(`chunk ${counter} claims ${length} bytes, more than a chunk holds`);
      const frameBytes = lengthBytes + length + tagBytes;
      if (buffered.length < frameBytes) return;
      const sealed = buffered.subarray(lengthBytes, lengthBytes + length);
      const tag = buffered.subarray(lengthBytes + length, frameBytes);
      stream.push(openChunk(chunkKey, header, sealed, tag));
      buffered = buffered.subarray(frameBytes);
    }
  };

  // A chunk opens with the nonce of a middle chunk or of the last one; which one says whether the file ends here.
  const openChunk = (key: Buffer, aad: Buffer, sealed: Buffer, tag: Buffer): Buffer => {
    for (const last of [false, true]) {
      const decipher = createDecipheriv('aes-256-gcm', key, nonceFor(counter, last));
      decipher.setAAD(aad);
      decipher.setAuthTag(tag);
      try {
        const plain = Buffer.concat([decipher.update(sealed), decipher.final()]);
        counter += 1;
        ended = last;
        return plain;
      } catch {
        // Try the other flag; neither: the chunk was changed.
      }
    }
    throw damaged(`chunk ${counter} does not authenticate: the file was changed or damaged`);
  };

  const readHeader = async (): Promise<void> => {
    const candidate = buffered.subarray(0, headerBytes);
    if (!candidate.subarray(0, magic.length).equals(magic))
      throw new BackupError(
        'backup_not_a_backup',
        'this file is not a Blockyard backup (it does not start with the backup header)',
      );
    const [version, log2N, r, p] = candidate.subarray(magic.length, magic.length + 4);
    if (version !== formatVersion)
      throw new BackupError(
        'backup_not_a_backup',
        `this backup has format ${version}; this Blockyard reads format ${formatVersion}`,
      );
    if (!log2N || !r || !p || log2N > maxCost.log2N || r > maxCost.r || p > maxCost.p)
      throw damaged('the header asks for key-derivation settings no Blockyard writes');
    const prefix = candidate.subarray(0, headerPrefixBytes);
    const keys = await deriveKeys(passphrase, prefix.subarray(magic.length + 4), { log2N, r, p });
    const expected = headerCheck(keys.macKey, prefix);
    if (!timingSafeEqual(expected, candidate.subarray(headerPrefixBytes, headerBytes)))
      throw new BackupError(
        'backup_wrong_passphrase',
        'the passphrase does not open this backup (BLOCKYARD_BACKUP_PASSPHRASE must be the one it was made with)',
      );
    header = Buffer.from(candidate);
    chunkKey = keys.chunkKey;
    buffered = buffered.subarray(headerBytes);
  };

  return new Transform({
    transform(data: Buffer, _encoding, callback: TransformCallback) {
      buffered = buffered.length === 0 ? data : Buffer.concat([buffered, data]);
      const next = async () => {
        if (!header && buffered.length >= headerBytes) await readHeader();
        openChunks(this);
      };
      next().then(() => callback(), callback);
    },
    flush(callback: TransformCallback) {
      if (!header) {
        const startsRight = buffered.subarray(0, magic.length).equals(magic.subarray(0, Math.min(magic.length, buffered.length)));
        callback(
          buffered.length > 0 && startsRight
            ? truncated('the file ends inside its header')
            : new BackupError('backup_not_a_backup', 'this file is not a Blockyard backup (it is empty or too short)'),
        );
      } else if (!ended) callback(truncated(`the file ends after chunk ${counter}, before its last chunk`));
      else if (buffered.length > 0) callback(damaged('there are bytes after the last chunk'));
      else callback();
    },
  });
}

const damaged = (message: string) => new BackupError('backup_damaged', `the backup is damaged or was changed: ${message}`);
const truncated = (message: string) => new BackupError('backup_truncated', `the backup is truncated: ${message}`);
