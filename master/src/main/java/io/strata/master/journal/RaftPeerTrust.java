package io.strata.master.journal;

import java.net.Socket;
import java.security.cert.CertificateException;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * The Raft port's trust: a peer's certificate must come from the cluster's authorities, as on every
 * port, and name one of the masters ({@code strata.security.tls.raft.peers}, its subject's common
 * name or a DNS name of its subject alternative names). Any certificate of the cluster's authority
 * (a worker's, a user's for mutual TLS) could otherwise append to the journal (issue 78).
 */
final class RaftPeerTrust extends X509ExtendedTrustManager {
  private static final int SAN_DNS = 2;

  private final X509ExtendedTrustManager authorities;
  private final Set<String> masters;

  RaftPeerTrust(X509ExtendedTrustManager authorities, Set<String> masters) {
    this.authorities = authorities;
    this.masters = Set.copyOf(masters);
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
      throws CertificateException {
    authorities.checkClientTrusted(chain, authType, socket);
    requireMaster(chain);
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
      throws CertificateException {
    authorities.checkServerTrusted(chain, authType, socket);
    requireMaster(chain);
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
      throws CertificateException {
    authorities.checkClientTrusted(chain, authType, engine);
    requireMaster(chain);
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
      throws CertificateException {
    authorities.checkServerTrusted(chain, authType, engine);
    requireMaster(chain);
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType)
      throws CertificateException {
    authorities.checkClientTrusted(chain, authType);
    requireMaster(chain);
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType)
      throws CertificateException {
    authorities.checkServerTrusted(chain, authType);
    requireMaster(chain);
  }

  @Override
  public X509Certificate[] getAcceptedIssuers() {
    return authorities.getAcceptedIssuers();
  }

  private void requireMaster(X509Certificate[] chain) throws CertificateException {
    List<String> names = names(chain[0]);
    if (names.stream().noneMatch(masters::contains)) {
      throw new CertificateException(
          "the Raft port takes the masters' certificates only (strata.security.tls.raft.peers);"
              + " this one names "
              + names);
    }
  }

  /** The certificate's subject common names and DNS names. */
  static List<String> names(X509Certificate cert) throws CertificateParsingException {
    List<String> names = new ArrayList<>();
    try {
      for (Rdn rdn : new LdapName(cert.getSubjectX500Principal().getName()).getRdns()) {
        if (rdn.getType().equalsIgnoreCase("CN")) {
          names.add(String.valueOf(rdn.getValue()));
        }
      }
    } catch (InvalidNameException e) {
      throw new CertificateParsingException("an unreadable subject: " + e.getMessage());
    }
    Collection<List<?>> alternatives = cert.getSubjectAlternativeNames();
    if (alternatives != null) {
      for (List<?> san : alternatives) {
        if (san.size() == 2 && Integer.valueOf(SAN_DNS).equals(san.get(0))) {
          names.add(String.valueOf(san.get(1)));
        }
      }
    }
    return names;
  }
}
