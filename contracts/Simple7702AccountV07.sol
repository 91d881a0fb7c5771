// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// @title Simple7702AccountV07
/// @notice An ERC-4337 account of EntryPoint v0.7 for an EOA that delegates its code here with EIP-7702.
/// The EOA's own key owns it: a UserOperation is valid when its hash (as an EIP-191 personal message,
/// like SimpleAccount v0.7) is signed by `address(this)`, the EOA. No storage, no constructor, no
/// immutables: delegating EOAs run this code with their own empty storage, and the code is the same on
/// every chain (deployed with CREATE2, it lands at the same address everywhere).
contract Simple7702AccountV07 {
    /// The canonical EntryPoint v0.7.
    address public constant entryPoint = 0x0000000071727De22E5E9d8BAf0edAc6f37da032;

    uint256 private constant SIG_VALIDATION_SUCCESS = 0;
    uint256 private constant SIG_VALIDATION_FAILED = 1;
    /// Signatures with s above half the curve order are malleable copies: refused (EIP-2).
    uint256 private constant HALF_CURVE_ORDER = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0;

    struct PackedUserOperation {
        address sender;
        uint256 nonce;
        bytes initCode;
        bytes callData;
        bytes32 accountGasLimits;
        uint256 preVerificationGas;
        bytes32 gasFees;
        bytes paymasterAndData;
        bytes signature;
    }

    error NotFromEntryPoint(address caller);
    error NotFromEntryPointOrSelf(address caller);
    error WrongArrayLengths();

    modifier onlyEntryPointOrSelf() {
        if (msg.sender != entryPoint && msg.sender != address(this)) revert NotFromEntryPointOrSelf(msg.sender);
        _;
    }

    /// Like an EOA without code: plain transfers and calls with unknown data succeed.
    receive() external payable {}

    fallback() external payable {}

    /// @notice IAccount: checks the signature, pays the EntryPoint what it is missing of the prefund. A bad
    /// signature answers SIG_VALIDATION_FAILED (never a revert), so bundlers can estimate with a stub.
    function validateUserOp(PackedUserOperation calldata userOp, bytes32 userOpHash, uint256 missingAccountFunds)
        external
        returns (uint256 validationData)
    {
        if (msg.sender != entryPoint) revert NotFromEntryPoint(msg.sender);
        bytes32 signed = keccak256(abi.encodePacked("\x19Ethereum Signed Message:\n32", userOpHash));
        validationData = _signedByThis(signed, userOp.signature) ? SIG_VALIDATION_SUCCESS : SIG_VALIDATION_FAILED;
        if (missingAccountFunds != 0) {
            // The EntryPoint checks the deposit it got; a failed transfer is its AA21, not ours.
            (bool paid,) = payable(msg.sender).call{value: missingAccountFunds, gas: type(uint256).max}("");
            (paid);
        }
    }

    /// @notice One call, as SimpleAccount v0.7's `execute`.
    function execute(address dest, uint256 value, bytes calldata func) external onlyEntryPointOrSelf {
        _call(dest, value, func);
    }

    /// @notice Several calls, as SimpleAccount v0.7's `executeBatch`: an empty `value` means no value sent.
    function executeBatch(address[] calldata dest, uint256[] calldata value, bytes[] calldata func)
        external
        onlyEntryPointOrSelf
    {
        if (dest.length != func.length || (value.length != 0 && value.length != func.length)) revert WrongArrayLengths();
        for (uint256 i = 0; i < dest.length; i++) {
            _call(dest[i], value.length == 0 ? 0 : value[i], func[i]);
        }
    }

    /// @notice ERC-1271: a hash signed (as is) by the EOA's key is its signature.
    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        return _signedByThis(hash, signature) ? this.isValidSignature.selector : bytes4(0xffffffff);
    }

    /// Safe transfers of ERC-721 and ERC-1155 tokens call these on an account that has code.
    function onERC721Received(address, address, uint256, bytes calldata) external pure returns (bytes4) {
        return this.onERC721Received.selector;
    }

    function onERC1155Received(address, address, uint256, uint256, bytes calldata) external pure returns (bytes4) {
        return this.onERC1155Received.selector;
    }

    function onERC1155BatchReceived(address, address, uint256[] calldata, uint256[] calldata, bytes calldata)
        external
        pure
        returns (bytes4)
    {
        return this.onERC1155BatchReceived.selector;
    }

    function supportsInterface(bytes4 interfaceId) external pure returns (bool) {
        return interfaceId == 0x01ffc9a7 // ERC-165
            || interfaceId == 0x150b7a02 // ERC721TokenReceiver
            || interfaceId == 0x4e2312e0; // ERC1155TokenReceiver
    }

    function _call(address target, uint256 value, bytes calldata data) private {
        (bool success, bytes memory result) = target.call{value: value}(data);
        if (!success) {
            assembly {
                revert(add(result, 32), mload(result))
            }
        }
    }

    function _signedByThis(bytes32 hash, bytes calldata signature) private view returns (bool) {
        address signer = _recover(hash, signature);
        return signer != address(0) && signer == address(this);
    }

    /// The signer of a 65-byte (r, s, v) signature, or zero when it is malformed or malleable.
    function _recover(bytes32 hash, bytes calldata signature) private pure returns (address) {
        if (signature.length != 65) return address(0);
        bytes32 r = bytes32(signature[0:32]);
        bytes32 s = bytes32(signature[32:64]);
        uint8 v = uint8(signature[64]);
        if (uint256(s) > HALF_CURVE_ORDER) return address(0);
        if (v < 27) v += 27;
        if (v != 27 && v != 28) return address(0);
        return ecrecover(hash, v, r, s);
    }
}
