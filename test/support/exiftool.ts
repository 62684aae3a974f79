import { execFile } from 'node:child_process';

/**
 * The XMP properties of an image as exiftool reads them (`exiftool -j -XMP:all -`), a reader
 * independent of ours. exiftool is required (Debian's `libimage-exiftool-perl`, which .ci/run
 * installs): without it this throws, and the test fails rather than skips.
 */
export function exiftoolXmp(image: Uint8Array): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      'exiftool',
      ['-j', '-XMP:all', '-'],
      { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if ((error as NodeJS.ErrnoException | null)?.code === 'ENOENT') {
          return reject(
            new Error(
              'exiftool is not installed: the XMP tests need it (Debian package libimage-exiftool-perl; .ci/run installs it)',
            ),
          );
        }
        if (error) return reject(new Error(`exiftool failed: ${stderr || error.message}`));
        try {
          const [tags] = JSON.parse(stdout) as Array<Record<string, unknown>>;
          resolve(tags ?? {});
        } catch (parseError) {
          reject(parseError);
        }
      },
    );
    child.stdin?.on('error', () => {}); // an exiftool that is missing or exits early closes its input
    child.stdin?.end(image);
  });
}
