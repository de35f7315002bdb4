// SmimeDecrypt.java: Bouncy Castle (Debian's bcprov/bcpkix 1.72) as an
// independent decryptor for libmsgcrypt's CMS output, driven by
// tests/interop_smime_bc.py. One JVM decrypts a whole batch, because starting
// the JVM costs more than all the decryptions together.
//
// Input on stdin, one job per line, fields separated by tabs:
//   NAME CERT KEY MESSAGE OUTPUT
// CERT is the recipient's certificate (PEM), KEY its private key (PEM,
// PKCS#8 or traditional), MESSAGE a DER ContentInfo (EnvelopedData or
// AuthEnvelopedData), OUTPUT where the recovered content goes. For each job
// one line on stdout: "ok NAME" once OUTPUT is written, or "error NAME
// <reason>". The caller compares OUTPUT with what it encrypted; this program
// judges nothing but whether Bouncy Castle accepted the message.
import java.io.BufferedReader;
import java.io.FileOutputStream;
import java.io.FileReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.security.PrivateKey;
import java.security.Security;
import java.util.Collection;

import org.bouncycastle.asn1.ASN1Primitive;
import org.bouncycastle.asn1.cms.CMSObjectIdentifiers;
import org.bouncycastle.asn1.cms.ContentInfo;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cms.CMSAuthEnvelopedData;
import org.bouncycastle.cms.CMSEnvelopedData;
import org.bouncycastle.cms.KeyAgreeRecipientInformation;
import org.bouncycastle.cms.KeyTransRecipientInformation;
import org.bouncycastle.cms.Recipient;
import org.bouncycastle.cms.RecipientInformation;
import org.bouncycastle.cms.RecipientInformationStore;
import org.bouncycastle.cms.jcajce.JceKeyAgreeEnvelopedRecipient;
import org.bouncycastle.cms.jcajce.JceKeyTransAuthEnvelopedRecipient;
import org.bouncycastle.cms.jcajce.JceKeyTransEnvelopedRecipient;
import org.bouncycastle.jce.provider.BouncyCastleProvider;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;

public final class SmimeDecrypt {
  private SmimeDecrypt() {}

  private static Object readPem(String path) throws Exception {
    try (PEMParser p = new PEMParser(new FileReader(path, StandardCharsets.US_ASCII))) {
      Object o = p.readObject();
      if (o == null) {
        throw new IllegalArgumentException("no PEM object in " + path);
      }
      return o;
    }
  }

  private static PrivateKey readKey(String path) throws Exception {
    Object o = readPem(path);
    JcaPEMKeyConverter conv = new JcaPEMKeyConverter().setProvider("BC");
    if (o instanceof PEMKeyPair) {
      return conv.getKeyPair((PEMKeyPair) o).getPrivate();
    }
    if (o instanceof PrivateKeyInfo) {
      return conv.getPrivateKey((PrivateKeyInfo) o);
    }
    throw new IllegalArgumentException("not a private key: " + o.getClass().getName());
  }

  // The RecipientInformation whose identifier (issuer and serial, or
  // subject key identifier) selects this certificate. RecipientId is a raw
  // Selector in 1.72, hence the suppressed warning.
  @SuppressWarnings("unchecked")
  private static RecipientInformation find(RecipientInformationStore store,
      X509CertificateHolder cert) {
    // getRecipients() is a raw Collection in 1.72.
    Collection<?> all = store.getRecipients();
    for (Object o : all) {
      RecipientInformation ri = (RecipientInformation) o;
      if (ri.getRID().match(cert)) {
        return ri;
      }
    }
    throw new IllegalArgumentException("no RecipientInfo for this certificate among "
        + all.size());
  }

  private static Recipient recipient(RecipientInformation ri, PrivateKey key, boolean aead) {
    if (ri instanceof KeyTransRecipientInformation) {
      return aead ? new JceKeyTransAuthEnvelopedRecipient(key).setProvider("BC")
                  : new JceKeyTransEnvelopedRecipient(key).setProvider("BC");
    }
    if (ri instanceof KeyAgreeRecipientInformation) {
      // Bouncy Castle 1.72 has no KeyAgree class for AuthEnvelopedData: the
      // enveloped one unwraps the key and the AEAD stream is chosen by the
      // content algorithm.
      return new JceKeyAgreeEnvelopedRecipient(key).setProvider("BC");
    }
    throw new IllegalArgumentException("unsupported RecipientInfo " + ri.getClass().getName());
  }

  private static byte[] decrypt(String certPath, String keyPath, String msgPath)
      throws Exception {
    X509CertificateHolder cert = (X509CertificateHolder) readPem(certPath);
    PrivateKey key = readKey(keyPath);
    byte[] der = Files.readAllBytes(Paths.get(msgPath));
    ContentInfo ci = ContentInfo.getInstance(ASN1Primitive.fromByteArray(der));
    if (ci.getContentType().equals(CMSObjectIdentifiers.authEnvelopedData)) {
      CMSAuthEnvelopedData ad = new CMSAuthEnvelopedData(ci);
      RecipientInformation ri = find(ad.getRecipientInfos(), cert);
      return ri.getContent(recipient(ri, key, true));
    }
    if (ci.getContentType().equals(CMSObjectIdentifiers.envelopedData)) {
      CMSEnvelopedData ed = new CMSEnvelopedData(ci);
      RecipientInformation ri = find(ed.getRecipientInfos(), cert);
      return ri.getContent(recipient(ri, key, false));
    }
    throw new IllegalArgumentException("content type " + ci.getContentType());
  }

  public static void main(String[] args) throws Exception {
    Security.addProvider(new BouncyCastleProvider());
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String line;
    while ((line = in.readLine()) != null) {
      String[] f = line.split("\t");
      if (f.length != 5) {
        System.out.println("error ? bad job line");
        continue;
      }
      try {
        byte[] plain = decrypt(f[1], f[2], f[3]);
        try (FileOutputStream o = new FileOutputStream(f[4])) {
          o.write(plain);
        }
        System.out.println("ok " + f[0]);
      } catch (Exception e) {
        String msg = String.valueOf(e.getMessage()).replace('\n', ' ');
        System.out.println("error " + f[0] + " " + e.getClass().getSimpleName() + ": " + msg);
      }
      System.out.flush();
    }
  }
}
