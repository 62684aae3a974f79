/**
 * Turns the shopper's file into a JPEG data URI whose long side is at most `maxSide` pixels, so
 * even a 48-megapixel phone photo uploads as a few hundred kilobytes (far under the 10 MB limit).
 * EXIF orientation is applied; transparent areas become white.
 */
export class PhotoError extends Error {}

async function decode(
  file: Blob,
): Promise<{ source: CanvasImageSource; width: number; height: number; release(): void }> {
  if (typeof createImageBitmap === 'function') {
    try {
      const bitmap = await createImageBitmap(file, { imageOrientation: 'from-image' });
      return { source: bitmap, width: bitmap.width, height: bitmap.height, release: () => bitmap.close() };
    } catch {
      // fall back to an <img>, which decodes a few formats createImageBitmap does not
    }
  }
  const url = URL.createObjectURL(file);
  const image = new Image();
  try {
    await new Promise<void>((resolve, reject) => {
      image.onload = () => resolve();
      image.onerror = () => reject(new Error('undecodable'));
      image.src = url;
    });
  } catch {
    URL.revokeObjectURL(url);
    throw new PhotoError('This file could not be read as a photo. Please choose a JPEG or PNG photo.');
  }
  return {
    source: image,
    width: image.naturalWidth,
    height: image.naturalHeight,
    release: () => URL.revokeObjectURL(url),
  };
}

export async function photoToDataUri(file: File, maxSide = 2048, quality = 0.88): Promise<string> {
  if (file.type && !/^image\//.test(file.type)) throw new PhotoError('Please choose a photo (an image file).');
  const image = await decode(file);
  try {
    if (!image.width || !image.height) throw new PhotoError('This photo appears to be empty. Please choose another.');
    const scale = Math.min(1, maxSide / Math.max(image.width, image.height));
    const canvas = document.createElement('canvas');
    canvas.width = Math.max(1, Math.round(image.width * scale));
    canvas.height = Math.max(1, Math.round(image.height * scale));
    const context = canvas.getContext('2d');
    if (!context) throw new PhotoError('Your browser could not prepare the photo.');
    context.fillStyle = '#fff';
    context.fillRect(0, 0, canvas.width, canvas.height);
    context.imageSmoothingQuality = 'high';
    context.drawImage(image.source, 0, 0, canvas.width, canvas.height);
    return canvas.toDataURL('image/jpeg', quality);
  } finally {
    image.release();
  }
}
